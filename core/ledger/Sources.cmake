# The durable effect ledger of browser writes (included from core/CMakeLists.txt).
target_sources(veetbot_core PRIVATE
  ledger/EffectLedger.cpp ledger/EffectLedger.h
  storage/SqlQueries.h
  storage/SqlDatabase.cpp storage/SqlDatabase.h
)
