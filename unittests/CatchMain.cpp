// The one main() of every unit-test executable (Catch2 v2 runner).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
