# The owner's task scopes: one entry, and the seed list from the environment.
# Seeds: fuzz/corpus/taskscope/.
veetbot_add_fuzzer(fuzz_taskscope taskscope_fuzzer.cpp)
