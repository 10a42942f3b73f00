#include "a.h"
#include "b.h"

int a(void) { return b(); }
