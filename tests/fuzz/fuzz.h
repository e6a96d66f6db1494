/*
 * The libFuzzer entry point every harness of tests/fuzz defines: one input,
 * parsed by one of zkpipe's readers. A harness returns 0 for every input,
 * frees whatever the reader gave it, and never aborts on bad input: every
 * reader returns an error. replay.c calls the same function from a plain
 * main for the corpus replay that ctest runs.
 */
#ifndef ZP_TESTS_FUZZ_H
#define ZP_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
