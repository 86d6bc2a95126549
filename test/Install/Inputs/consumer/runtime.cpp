#include "tilec_runtime.h"
#include <cstdio>

int main() {
  const int Codes[] = {TILEC_SUCCESS, TILEC_ERROR_LAUNCH_FAILED, 99};
  for (int Code : Codes)
    std::printf("%d: %s\n", Code, tilecGetErrorString(Code));
  return 0;
}
