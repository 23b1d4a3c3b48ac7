# Browser-profile metadata adapters: in memory, and SQL (SQLite and PostgreSQL).
target_sources(veetbot_core PRIVATE
  profiles/InMemoryProfileRepository.cpp profiles/InMemoryProfileRepository.h
  profiles/ProfileSchema.cpp profiles/ProfileSchema.h
  profiles/SqlProfileRepository.cpp profiles/SqlProfileRepository.h
)
