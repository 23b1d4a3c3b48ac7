# The key-directory loader: listings decoded from the input (see keydir_fuzzer.cpp).
veetbot_add_fuzzer(fuzz_keydir keydir_fuzzer.cpp)
