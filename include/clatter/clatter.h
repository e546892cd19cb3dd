/* clatter — umbrella header of the core library. */
#ifndef CLATTER_H
#define CLATTER_H
#include "clatter/types.h"
#include "clatter/world.h"
#include "clatter/solvers.h"
#define CLATTER_VERSION_STRING "0.1.0"
#endif
