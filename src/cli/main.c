#include <stdio.h>
int main(void) { puts("dgnn"); return 0; }
