/* inc/extra.h -- found only through -I inc. */
#define EXTRA_VALUE 42
