  // ---------------------------------------------------------------- extraction (extract.js)
  //
  // Spliced into collector.js. Deterministic collection extraction (spec 000 ADR-0161).
