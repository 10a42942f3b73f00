#include <stdio.h>

#include "a.h"

int c(void) { return a(); }
