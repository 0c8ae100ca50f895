package io.braidfs.bench.driver;

/** The unit of a measurement, and whether more of it is better (for the words beside a ratio). */
public enum Unit {
  MIB_PER_S("MiB/s", true),
  MB_PER_S("MB/s", true),
  OPS_PER_S("ops/s", true),
  FILES_PER_S("files/s", true),
  CALLS_PER_S("calls/s", true),
  SECONDS("s", false),
  MILLIS("ms", false),
  MICROS("µs", false),
  NANOS("ns", false),
  RATIO("x", false);

  private final String symbol;
  private final boolean higherIsBetter;

  Unit(String symbol, boolean higherIsBetter) {
    this.symbol = symbol;
    this.higherIsBetter = higherIsBetter;
  }

  /** How the unit is written after a number. */
  public String symbol() {
    return symbol;
  }

  /** True for rates, false for times. */
  public boolean higherIsBetter() {
    return higherIsBetter;
  }
}
