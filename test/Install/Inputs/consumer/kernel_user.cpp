// Uses the header add_tile_kernel generates for gemm_kernel.
#include "gemm_kernel.h"

int main() { return 0; }
