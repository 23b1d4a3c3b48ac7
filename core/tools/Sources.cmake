# Model-facing tool presentation (included from core/CMakeLists.txt).
target_sources(veetbot_core PRIVATE tools/ModelProjection.cpp tools/ModelProjection.h)
