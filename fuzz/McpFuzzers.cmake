# `veetbot mcp`'s JSON-RPC input: framing, the channel and the MCP server's parsing.
# Seeds: fuzz/corpus/mcp/ (run: fuzz_mcp fuzz/corpus/mcp).
veetbot_add_fuzzer(fuzz_mcp mcp_fuzzer.cpp)
