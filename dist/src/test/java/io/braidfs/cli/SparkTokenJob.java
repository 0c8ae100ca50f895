package io.braidfs.cli;

import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * A job's process as a cluster scheduler starts it (for {@link SparkTokenJobIT}): no Kerberos
 * ticket or keytab, only the delegation tokens its submitter collected, in the file {@code
 * HADOOP_TOKEN_FILE_LOCATION} names (which Hadoop's login reads). The Braid settings say Kerberos,
 * with a ticket cache that does not exist, so nothing but a token can authenticate it.
 *
 * <pre>
 * SparkTokenJob URI KRB5 job INPUT OUTPUT -> ok lines=N sum=S written=N
 *   (Spark local[2]: INPUT's numbered lines summed, written to OUTPUT as Parquet, read back)
 * SparkTokenJob URI KRB5 stat PATH        -> ok owner=U  (one FileSystem call, no Spark)
 * </pre>
 *
 * <p>Thread-safety: a program.
 */
public final class SparkTokenJob {
  private SparkTokenJob() {}

  public static void main(String[] args) throws Exception {
    URI uri = URI.create(args[0]);
    String krb5 = args[1];
    String noTicket = "/nonexistent/braid-task-has-no-ticket";
    if (args[2].equals("stat")) {
      Configuration conf = new Configuration();
      conf.set("fs.braid.security.authentication", "KERBEROS");
      conf.set("fs.braid.security.kerberos.krb5-conf", krb5);
      conf.set("fs.braid.security.kerberos.server-principal", "braid/localhost");
      conf.set("fs.braid.security.kerberos.ticket-cache", noTicket);
      try (FileSystem fs = FileSystem.newInstance(uri, conf)) {
        System.out.println("ok owner=" + fs.getFileStatus(new Path(args[3])).getOwner());
      }
      return;
    }
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("braid-token-job")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.sql.shuffle.partitions", "2")
            .config("spark.hadoop.fs.braid.security.authentication", "KERBEROS")
            .config("spark.hadoop.fs.braid.security.kerberos.krb5-conf", krb5)
            .config("spark.hadoop.fs.braid.security.kerberos.server-principal", "braid/localhost")
            .config("spark.hadoop.fs.braid.security.kerberos.ticket-cache", noTicket)
            .getOrCreate();
    try {
      Dataset<Row> numbers =
          spark.read().text(uri.resolve(args[3]).toString()).selectExpr("CAST(value AS LONG) AS n");
      long lines = numbers.count();
      long sum = numbers.agg(functions.sum("n")).first().getLong(0);
      String output = uri.resolve(args[4]).toString();
      numbers.repartition(4).write().parquet(output);
      long written = spark.read().parquet(output).count();
      System.out.printf("ok lines=%d sum=%d written=%d%n", lines, sum, written);
    } finally {
      spark.stop();
    }
  }
}
