/* placeholder main replaced by the CLI below */
#include "bpe.h"
int main(void) { return bpe_trainers[0] ? 0 : 1; }
