# The observe request: browser.observe's closed argument schema (first window, after a ref,
# continuation cursor) and the pipeline's invalid-arguments failure.
target_sources(veetbot_core PRIVATE
  domain/ObserveRequest.cpp domain/ObserveRequest.h
)
