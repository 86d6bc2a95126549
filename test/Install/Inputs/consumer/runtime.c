#include "tilec_runtime.h"
#include <stdio.h>

int main(void) {
  int Codes[] = {TILEC_SUCCESS, TILEC_ERROR_LAUNCH_FAILED, 99};
  for (unsigned I = 0; I < sizeof(Codes) / sizeof(Codes[0]); ++I)
    printf("%d: %s\n", Codes[I], tilecGetErrorString(Codes[I]));
  return 0;
}
