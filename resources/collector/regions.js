  // ---------------------------------------------------------------- regions (regions.js)
  //
  // Spliced into collector.js. Bounded semantic page structure (spec 000 ADR-0160).
