// replay_main.c: a plain driver for the libFuzzer targets of tests/fuzz/: built with the project's own C
// compiler (no clang, no libFuzzer), it feeds every file named on the command line to the target's
// LLVMFuzzerTestOneInput once, as libFuzzer does when it is given files instead of a corpus folder.
// The kept crashers and fixtures replay through it as CTest tests (tests/CMakeLists.txt), so that a
// regression in a parser fails `make test` on any machine; the target's contract checks abort on
// a violation, and under `make test-sanitize` the sanitizers watch every input.

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

// read_file: the whole file in a buffer from malloc (one byte more, so that an empty file is not a
// NULL buffer), its size in *size; NULL when it cannot be read
static uint8_t* read_file(const char* path, size_t* size) {
    FILE* file = fopen(path, "rb");
    if (!file) return NULL;
    size_t capacity = 4096, length = 0;
    uint8_t* data = malloc(capacity);
    while (data) {
        length += fread(data + length, 1, capacity - length, file);
        if (length < capacity) break;
        uint8_t* grown = realloc(data, 2 * capacity);
        if (!grown) {
            free(data);
            data = NULL;
            break;
        }
        data = grown;
        capacity *= 2;
    }
    int failed = ferror(file);
    fclose(file);
    if (failed) {
        free(data);
        return NULL;
    }
    *size = length;
    return data;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; ++i) {
        size_t size = 0;
        uint8_t* data = read_file(argv[i], &size);
        if (!data) {
            fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[i]);
            return 1;
        }
        // shrunk to its exact size, so that AddressSanitizer sees a read past the end
        uint8_t* exact = realloc(data, size ? size : 1);
        if (!exact) {
            free(data);
            fprintf(stderr, "%s: out of memory for %s\n", argv[0], argv[i]);
            return 1;
        }
        LLVMFuzzerTestOneInput(exact, size);
        free(exact);
    }
    printf("replayed %d files\n", argc - 1);
    return 0;
}
