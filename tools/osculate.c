#include "osculate/osculate.h"
#include <stdio.h>
int main(void) { printf("osculate %s\n", osc_version_string()); return 0; }
