# The profile service's request rules: admission before the body, lifecycle, key and ceremony
# bodies, the sign-in hand-off.
# Seeds: fuzz/corpus/service/ (the first byte chooses: odd admission, even bodies).
veetbot_add_fuzzer(fuzz_service service_fuzzer.cpp)
