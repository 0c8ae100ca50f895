package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.StorageStatistics;
import org.apache.hadoop.util.VersionInfo;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Spark job on {@code braid://}: Spark 4.2 in {@code local[2]} against a Braid cluster that
 * runs as its own process ({@code ./braid local}, 3 data servers, see {@link LocalBraid}).
 *
 * <p>It runs in failsafe's {@code spark-it} execution (dist's pom.xml), in a JVM whose classpath is
 * what a Spark user has: {@code spark-sql_2.13} resolved on its own (Spark's Netty, Jackson,
 * RocksDB, Hadoop {@code hadoop-client-api}/{@code -runtime} 3.5.0) plus {@code
 * fs-hadoop-VERSION-shaded.jar}, found through its {@code META-INF/services} entry (no {@code
 * fs.braid.impl}); none of Braid's unshaded modules. In any other execution its tests are skipped.
 *
 * <p>Checks, each against values the test computes itself from the data it generated:
 *
 * <ul>
 *   <li>a 200,000-row Parquet dataset written with {@code partitionBy} (Hadoop's
 *       FileOutputCommitter: mkdirs, create, rename of task and job directories, delete) reads back
 *       with the exact per-partition count, sum, min, max and string lengths, and a filter on the
 *       partition column counts one partition; {@code listStatus} shows the 7 partition
 *       directories, {@code _SUCCESS}, non-empty {@code part-*.parquet} files and no {@code
 *       _temporary}; an overwrite replaces the dataset;
 *   <li>a CSV file written through the Hadoop {@code FileSystem} API (quoted fields with commas and
 *       quotes) reads back in Spark, in 128 KiB splits, with the exact per-city count and sum;
 *       Spark writes the aggregate as CSV, which reads back the same both through Spark and, line
 *       by line, through {@code FileSystem.open};
 *   <li>100,000 numbered lines saved with the RDD API ({@code saveAsTextFile}, Hadoop's old mapred
 *       committer) read back in 8 or more splits with the exact sum and count;
 *   <li>bytes read and written on {@code braid://} show up in the scheme's {@code
 *       FileSystem.Statistics} and in Spark's task input and output metrics.
 * </ul>
 *
 * <p>Thread-safety: JUnit runs it on one thread; the Spark listener's counters are thread-safe.
 */
@Timeout(180)
class SparkJobIT {
  private static final int ROWS = 200_000;
  private static final int KEYS = 7;
  private static final int CSV_ROWS = 20_000;
  private static final int TEXT_LINES = 100_000;
  private static final String[] CITIES = {"Lisbon", "Oslo", "Kyoto", "Quito", "Dakar"};

  @TempDir static Path tmp;

  private static @Nullable LocalBraid braid;
  private static @Nullable SparkSession spark;
  private static final LongAdder taskBytesRead = new LongAdder();
  private static final LongAdder taskBytesWritten = new LongAdder();

  @BeforeAll
  static void startBraidAndSpark() throws IOException, InterruptedException {
    if (!inSparkExecution()) {
      return; // each test is skipped, see onlyInTheSparkExecution
    }
    braid = LocalBraid.start(tmp);
    spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("braid-spark-it")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "4")
            // Small splits: readers start in the middle of files (seek, then lines or row groups
            // across split ends), as on a real cluster with big files.
            .config("spark.sql.files.maxPartitionBytes", "131072")
            .config("spark.sql.warehouse.dir", tmp.resolve("spark-warehouse").toUri().toString())
            .getOrCreate();
    spark
        .sparkContext()
        .addSparkListener(
            new SparkListener() {
              @Override
              public void onTaskEnd(SparkListenerTaskEnd taskEnd) {
                TaskMetrics m = taskEnd.taskMetrics();
                if (m != null) {
                  taskBytesRead.add(m.inputMetrics().bytesRead());
                  taskBytesWritten.add(m.outputMetrics().bytesWritten());
                }
              }
            });
    System.out.printf(
        "SparkJobIT: Spark %s, Hadoop %s, Braid at %s%n",
        spark.version(), VersionInfo.getVersion(), braid.uri());
  }

  /**
   * Skips each test outside failsafe's spark-it execution (as with {@code -Dit.test=SparkJobIT},
   * which every execution obeys). Skipping here rather than in {@code @BeforeAll} gets the tests
   * counted: failsafe writes no summary for an execution that ran none, and the next execution
   * would then merge its results into a stale summary left by an earlier build.
   */
  @BeforeEach
  void onlyInTheSparkExecution() {
    assumeThat(inSparkExecution())
        .as("SparkJobIT runs only in failsafe's spark-it execution, on Spark's own classpath")
        .isTrue();
  }

  static boolean inSparkExecution() {
    return Boolean.getBoolean("braid.it.spark");
  }

  @AfterAll
  static void stop() {
    try {
      if (spark != null) {
        spark.stop();
      }
    } finally {
      if (braid != null) {
        braid.close();
      }
    }
  }

  @Test
  void classpathHasTheShadedJarAndNoneOfBraidsUnshadedModules() {
    List<String> entries =
        Arrays.asList(System.getProperty("java.class.path").split(java.io.File.pathSeparator));
    assertThat(entries)
        .as("java.class.path")
        .filteredOn(e -> e.matches(".*/fs-hadoop-[^/]*-shaded\\.jar"))
        .hasSize(1);
    assertThat(entries)
        .as("java.class.path")
        .noneMatch(e -> e.matches(".*/fs-[a-z]+-[^/]*\\.jar") && !e.endsWith("-shaded.jar"))
        .noneMatch(e -> e.matches(".*/fs-[a-z]+/target/(test-)?classes/?"))
        .noneMatch(e -> e.matches(".*/(logback-classic|hadoop-common)-[^/]*\\.jar"));
  }

  @Test
  void partitionedParquetRoundTrip() throws Exception {
    SparkSession s = session();
    String dir = base() + "parquet/events";
    Expected expected = Expected.compute();
    long fsWrittenBefore = fsStatistic("bytesWritten");
    long tasksWrittenBefore = taskBytesWritten.sum();

    s.range(0, ROWS)
        .selectExpr(
            "id",
            "CAST(id % " + KEYS + " AS INT) AS k",
            "id * 3 AS v",
            "concat('row-', CAST(id AS STRING)) AS s")
        .write()
        .mode(SaveMode.ErrorIfExists)
        .partitionBy("k")
        .parquet(dir);

    awaitListeners();
    assertThat(fsStatistic("bytesWritten")).isGreaterThan(fsWrittenBefore);
    assertThat(taskBytesWritten.sum()).isGreaterThan(tasksWrittenBefore);

    FileSystem fs = fileSystem();
    org.apache.hadoop.fs.Path root = new org.apache.hadoop.fs.Path(dir);
    List<String> names = new ArrayList<>();
    for (FileStatus st : fs.listStatus(root)) {
      names.add(st.getPath().getName());
      if (st.getPath().getName().startsWith("k=")) {
        assertThat(st.isDirectory()).as("%s", st).isTrue();
        FileStatus[] parts = fs.listStatus(st.getPath());
        assertThat(parts).as("files in %s", st.getPath()).isNotEmpty();
        assertThat(parts)
            .allSatisfy(
                p -> {
                  assertThat(p.isFile()).as("%s", p).isTrue();
                  assertThat(p.getPath().getName()).startsWith("part-").endsWith(".parquet");
                  assertThat(p.getLen()).as("%s", p).isPositive();
                });
      }
    }
    List<String> expectedNames = new ArrayList<>();
    for (int k = 0; k < KEYS; k++) {
      expectedNames.add("k=" + k);
    }
    expectedNames.add("_SUCCESS");
    assertThat(names).containsExactlyInAnyOrderElementsOf(expectedNames);

    long fsReadBefore = fsStatistic("bytesRead");
    long tasksReadBefore = taskBytesRead.sum();
    Dataset<Row> back = s.read().parquet(dir);
    List<Row> rows =
        back.groupBy("k")
            .agg(
                functions.count("*"),
                functions.sum("v"),
                functions.min("id"),
                functions.max("id"),
                functions.sum(functions.length(functions.col("s"))))
            .orderBy("k")
            .collectAsList();
    assertThat(rows).hasSize(KEYS);
    for (Row r : rows) {
      int k = r.getInt(0);
      assertThat(r.getLong(1)).as("count, k=%d", k).isEqualTo(expected.count[k]);
      assertThat(r.getLong(2)).as("sum(v), k=%d", k).isEqualTo(expected.sumV[k]);
      assertThat(r.getLong(3)).as("min(id), k=%d", k).isEqualTo(expected.minId[k]);
      assertThat(r.getLong(4)).as("max(id), k=%d", k).isEqualTo(expected.maxId[k]);
      assertThat(r.getLong(5)).as("sum(length(s)), k=%d", k).isEqualTo(expected.sumLength[k]);
    }
    // A filter on the partition column.
    assertThat(back.filter("k = 3").count()).isEqualTo(expected.count[3]);
    awaitListeners();
    assertThat(fsStatistic("bytesRead")).isGreaterThan(fsReadBefore);
    assertThat(taskBytesRead.sum()).isGreaterThan(tasksReadBefore);

    // Overwrite: the old partitions go (recursive delete), the new data reads back alone.
    s.range(0, 1000)
        .selectExpr("id", "CAST(0 AS INT) AS k", "id AS v", "'x' AS s")
        .write()
        .mode(SaveMode.Overwrite)
        .partitionBy("k")
        .parquet(dir);
    Row after = s.read().parquet(dir).agg(functions.count("*"), functions.sum("v")).first();
    assertThat(after.getLong(0)).isEqualTo(1000L);
    assertThat(after.getLong(1)).isEqualTo(999L * 1000 / 2);
    assertThat(fs.exists(new org.apache.hadoop.fs.Path(root, "k=1"))).isFalse();
  }

  @Test
  void csvWrittenThroughHadoopReadAggregatedAndWrittenBySpark() throws Exception {
    SparkSession s = session();
    FileSystem fs = fileSystem();
    String dir = base() + "csv/";
    org.apache.hadoop.fs.Path input = new org.apache.hadoop.fs.Path(dir + "people.csv");

    // The input, and what the aggregate must be, computed here.
    Random random = new Random(7);
    Map<String, long[]> byCity = new TreeMap<>(); // city -> {count, sum}
    StringBuilder csv = new StringBuilder("name,city,amount\n");
    int tricky = 0;
    for (int i = 0; i < CSV_ROWS; i++) {
      String name = "user-" + i;
      if (i % 50 == 0) {
        name = "O'Neil, \"Jr\" " + i; // a comma and quotes: the field must be quoted
        tricky++;
      }
      String city = CITIES[random.nextInt(CITIES.length)];
      long amount = random.nextInt(1_000_000);
      long[] agg = byCity.computeIfAbsent(city, c -> new long[2]);
      agg[0]++;
      agg[1] += amount;
      csv.append(quote(name)).append(',').append(city).append(',').append(amount).append('\n');
    }
    byte[] bytes = csv.toString().getBytes(StandardCharsets.UTF_8);
    long fsWrittenBefore = fsStatistic("bytesWritten");
    try (FSDataOutputStream out = fs.create(input, false)) {
      out.write(bytes);
    }
    assertThat(fs.getFileStatus(input).getLen()).isEqualTo(bytes.length);
    assertThat(fsStatistic("bytesWritten") - fsWrittenBefore).isGreaterThanOrEqualTo(bytes.length);

    long tasksReadBefore = taskBytesRead.sum();
    Dataset<Row> people =
        s.read()
            .option("header", "true")
            .option("escape", "\"")
            .schema("name STRING, city STRING, amount LONG")
            .csv(input.toString());
    assertThat(people.count()).isEqualTo(CSV_ROWS);
    assertThat(people.filter(functions.col("name").startsWith("O'Neil, \"Jr\" ")).count())
        .isEqualTo(tricky);
    Dataset<Row> totals =
        people
            .groupBy("city")
            .agg(functions.count("*").as("n"), functions.sum("amount").as("total"))
            .orderBy("city");
    assertThat(rowsByCity(totals.collectAsList())).isEqualTo(asText(byCity));
    awaitListeners();
    assertThat(taskBytesRead.sum()).isGreaterThan(tasksReadBefore);

    String out = dir + "totals";
    totals.coalesce(1).write().option("header", "true").csv(out);
    Dataset<Row> again =
        s.read().option("header", "true").schema("city STRING, n LONG, total LONG").csv(out);
    assertThat(rowsByCity(again.orderBy("city").collectAsList())).isEqualTo(asText(byCity));

    // The part file itself, through the Hadoop API rather than Spark's reader.
    List<FileStatus> parts = new ArrayList<>();
    boolean success = false;
    for (FileStatus st : fs.listStatus(new org.apache.hadoop.fs.Path(out))) {
      if (st.getPath().getName().startsWith("part-")) {
        parts.add(st);
      }
      success |= st.getPath().getName().equals("_SUCCESS");
    }
    assertThat(success).as("_SUCCESS in %s", out).isTrue();
    assertThat(parts).hasSize(1);
    List<String> lines = new ArrayList<>();
    try (FSDataInputStream in = fs.open(parts.get(0).getPath());
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        lines.add(line);
      }
    }
    List<String> expectedLines = new ArrayList<>();
    expectedLines.add("city,n,total");
    expectedLines.addAll(asText(byCity));
    assertThat(lines).isEqualTo(expectedLines);
  }

  @Test
  void textThroughTheRddApi() throws Exception {
    SparkSession s = session();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(s.sparkContext());
    String dir = base() + "text/numbers";
    List<Integer> numbers = new ArrayList<>();
    for (int i = 1; i <= TEXT_LINES; i++) {
      numbers.add(i);
    }
    // The old mapred API: TextOutputFormat and mapred's FileOutputCommitter, TextInputFormat's
    // splits from getFileBlockLocations.
    jsc.parallelize(numbers, 3).map(i -> "line " + i).saveAsTextFile(dir);
    JavaRDD<String> lines = jsc.textFile(dir, 8);
    assertThat(lines.getNumPartitions()).isGreaterThanOrEqualTo(8);
    long sum = lines.map(l -> Long.parseLong(l.substring("line ".length()))).reduce(Long::sum);
    assertThat(sum).isEqualTo((long) TEXT_LINES * (TEXT_LINES + 1) / 2);
    assertThat(lines.distinct().count()).isEqualTo(TEXT_LINES);
  }

  /** What the Parquet aggregate must be, per key, computed without Spark. */
  private static final class Expected {
    final long[] count = new long[KEYS];
    final long[] sumV = new long[KEYS];
    final long[] minId = new long[KEYS];
    final long[] maxId = new long[KEYS];
    final long[] sumLength = new long[KEYS];

    static Expected compute() {
      Expected e = new Expected();
      Arrays.fill(e.minId, Long.MAX_VALUE);
      Arrays.fill(e.maxId, Long.MIN_VALUE);
      for (long id = 0; id < ROWS; id++) {
        int k = (int) (id % KEYS);
        e.count[k]++;
        e.sumV[k] += id * 3;
        e.minId[k] = Math.min(e.minId[k], id);
        e.maxId[k] = Math.max(e.maxId[k], id);
        e.sumLength[k] += ("row-" + id).length();
      }
      return e;
    }
  }

  private static String quote(String field) {
    if (field.contains(",") || field.contains("\"")) {
      return '"' + field.replace("\"", "\"\"") + '"';
    }
    return field;
  }

  private static List<String> rowsByCity(List<Row> rows) {
    List<String> text = new ArrayList<>();
    for (Row r : rows) {
      text.add(r.getString(0) + "," + r.getLong(1) + "," + r.getLong(2));
    }
    return text;
  }

  private static List<String> asText(Map<String, long[]> byCity) {
    List<String> text = new ArrayList<>();
    byCity.forEach((city, agg) -> text.add(city + "," + agg[0] + "," + agg[1]));
    return text;
  }

  /** The total of one of {@code braid://}'s FileSystem.Statistics counters, 0 if none yet. */
  private static long fsStatistic(String key) {
    StorageStatistics st = FileSystem.getGlobalStorageStatistics().get("braid");
    if (st == null) {
      return 0;
    }
    Long value = st.getLong(key);
    return value == null ? 0 : value;
  }

  /** Waits until every task-end event so far has reached the listener. */
  private static void awaitListeners() throws TimeoutException {
    session().sparkContext().listenerBus().waitUntilEmpty(30_000);
  }

  private static FileSystem fileSystem() throws IOException {
    Configuration conf = session().sparkContext().hadoopConfiguration();
    return FileSystem.get(braidNow().uri(), conf);
  }

  private static String base() {
    return braidNow().uri() + "spark-it/";
  }

  private static SparkSession session() {
    SparkSession s = spark;
    if (s == null) {
      throw new IllegalStateException("Spark did not start");
    }
    return s;
  }

  private static LocalBraid braidNow() {
    LocalBraid b = braid;
    if (b == null) {
      throw new IllegalStateException("Braid did not start");
    }
    return b;
  }
}
