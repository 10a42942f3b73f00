#include <fix/y.h>
