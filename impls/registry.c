/*
 * registry.c — the list of trainers, in teaching order. The CLI, every test
 * and the benchmark iterate bpe_trainers[], so adding a trainer here adds it
 * to every check.
 */
#include "bpe.h"

extern const bpe_trainer bpe_trainer_naive;
extern const bpe_trainer bpe_trainer_incremental;
extern const bpe_trainer bpe_trainer_inverted_index;
extern const bpe_trainer bpe_trainer_heap;
extern const bpe_trainer bpe_trainer_bucket;
extern const bpe_trainer bpe_trainer_linked_list;
extern const bpe_trainer bpe_trainer_cache_aware;
extern const bpe_trainer bpe_trainer_threaded_walk;
extern const bpe_trainer bpe_trainer_batch_workers;

const bpe_trainer *const bpe_trainers[] = {
    &bpe_trainer_naive,
    &bpe_trainer_incremental,
    &bpe_trainer_inverted_index,
    &bpe_trainer_heap,
    &bpe_trainer_bucket,
    &bpe_trainer_linked_list,
    &bpe_trainer_cache_aware,
    &bpe_trainer_threaded_walk,
    &bpe_trainer_batch_workers,
    NULL,
};

const bpe_trainer *const bpe_default_trainer = &bpe_trainer_batch_workers;
