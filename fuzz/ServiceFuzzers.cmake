# The profile service's request rules: the request head's bounds, admission before the body,
# lifecycle, key and ceremony bodies, the sign-in hand-off.
# Seeds: fuzz/corpus/service/ (the first byte chooses: odd admission; else, with 2 set, the
# request head read in pieces; else bodies).
veetbot_add_fuzzer(fuzz_service service_fuzzer.cpp)
