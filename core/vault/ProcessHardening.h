#pragma once

namespace veetbot::ProcessHardening {

// For a program that will hold keys or decrypted profile material: no core file, and not
// dumpable (RLIMIT_CORE 0, PR_SET_DUMPABLE 0), so neither a crash nor another process of the
// same user can copy its memory. Process-wide: only a program's main() calls it, first thing,
// never the library. A child it starts afterwards inherits the core limit; it must not be
// called in a process that later writes its own uid_map (the isolated browser's set-up).
// False when either setting failed.
[[nodiscard]] bool disableCoreDumps();

} // namespace veetbot::ProcessHardening
