# browser.observe {extract}: the canonical extraction, its strict JSON and the pure,
# locale-independent typing of cells.
target_sources(veetbot_core PRIVATE
  domain/Extraction.cpp domain/Extraction.h
)
# Its model view, used by tools/ModelProjection (kept here so the extraction is one unit).
target_sources(veetbot_core PRIVATE
  tools/ExtractionProjection.cpp tools/ExtractionProjection.h
)
