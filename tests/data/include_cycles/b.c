#include "b.h"
#include "a.h"

int b(void) { return 0; }
int b2(void) { return a(); }
