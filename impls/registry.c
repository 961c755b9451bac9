/*
 * registry.c — the list of trainers, in teaching order. The CLI, every test
 * and the benchmark iterate bpe_trainers[], so adding a trainer here adds it
 * to every check.
 */
#include "bpe.h"

extern const bpe_trainer bpe_trainer_naive;

const bpe_trainer *const bpe_trainers[] = {
    &bpe_trainer_naive,
    NULL,
};
