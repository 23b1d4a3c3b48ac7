# browser.act's pipeline pieces (included from core/CMakeLists.txt): the tool registry and
# deterministic policy, the approval view, the Approver port with its approvers and the
# single-use approval flow, the pipeline's own failures, and content-free diagnostics.
target_sources(veetbot_core PRIVATE
  ports/Approver.h
  tools/ApprovalView.cpp tools/ApprovalView.h
  tools/Approvals.cpp tools/Approvals.h
  tools/Approvers.cpp tools/Approvers.h
  tools/Diagnostics.cpp tools/Diagnostics.h
  tools/ToolFailure.cpp tools/ToolFailure.h
  tools/ToolPipeline.cpp tools/ToolPipeline.h
  tools/ToolPolicy.cpp tools/ToolPolicy.h
  tools/ToolRegistry.cpp tools/ToolRegistry.h
)
