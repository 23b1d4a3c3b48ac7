# The envelope parser (and the strict JSON / canonical JSON it rests on).
# Seeds: fuzz/corpus/envelope/ (run: fuzz_envelope fuzz/corpus/envelope).
veetbot_add_fuzzer(fuzz_envelope envelope_fuzzer.cpp)
