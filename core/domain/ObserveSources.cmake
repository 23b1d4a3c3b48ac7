# The observe request: browser.observe's closed argument schema (first window, after a ref,
# continuation cursor, wait_for, extract, focus), the visible-control predicate it shares
# with act, and the pipeline's invalid-arguments failure.
target_sources(veetbot_core PRIVATE
  domain/ExtractRequest.cpp domain/ExtractRequest.h
  domain/ObserveRequest.cpp domain/ObserveRequest.h
  domain/ToolJson.cpp domain/ToolJson.h
  domain/VisiblePredicate.cpp domain/VisiblePredicate.h
)
