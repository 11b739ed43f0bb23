// The one translation unit that holds doctest's runner; every tests/test_*.cpp adds cases.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
