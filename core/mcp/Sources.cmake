# The MCP server of `veetbot mcp` (included from core/CMakeLists.txt): JSON-RPC 2.0 over
# newline-delimited stdio, the protocol methods, and the MCP face of the browser tools.
target_sources(veetbot_core PRIVATE
  mcp/ElicitationApprover.cpp mcp/ElicitationApprover.h
  mcp/JsonRpcChannel.cpp mcp/JsonRpcChannel.h
  mcp/McpServer.cpp mcp/McpServer.h
  mcp/McpTools.cpp mcp/McpTools.h
)
