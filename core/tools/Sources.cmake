# Model-facing tools (included from core/CMakeLists.txt): the model projection and the
# browser.observe tool (window modes and the wait_for poll).
target_sources(veetbot_core PRIVATE
  tools/ModelProjection.cpp tools/ModelProjection.h
  tools/ObserveTool.cpp tools/ObserveTool.h
)
