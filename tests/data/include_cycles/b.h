int b(void);
