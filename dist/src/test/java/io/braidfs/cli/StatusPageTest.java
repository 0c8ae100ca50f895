package io.braidfs.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.braidfs.testing.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.slf4j.LoggerFactory;

/**
 * The status page of {@code braid local} in a real headless browser (Debian's chromium and its
 * chromedriver, through Selenium): the MDS page loads without console errors, its data server table
 * fills, its chart gains points, the namespace browser goes into directories and shows a file's
 * replica locations, names with markup in them show as text, and the data server page fills. The
 * JSON endpoints refuse writes.
 *
 * <p>Without chromium or chromedriver the test is skipped, saying which is missing (it fails
 * instead with {@code BRAID_OUTSIDE_TOOLS_REQUIRED=1}, as CI sets). Screenshots go to {@code
 * target/status-page/}; with {@code -Dbraid.docs.regenerate=true} also to {@code docs/images/}.
 */
class StatusPageTest {
  private static final Pattern METRICS =
      Pattern.compile("braid local: metrics on http://(127\\.0\\.0\\.1:\\d+)/metrics");
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** A name a careless page would turn into markup (and a script run). */
  private static final String EVIL = "<img src=x onerror=alert(1)>.bin";

  @TempDir Path tmp;

  @Test
  void theMdsAndDataServerPagesWorkInAHeadlessBrowser() throws Exception {
    Path chromium = tool("chromium", "/usr/bin/chromium");
    Path chromedriver = tool("chromedriver", "/usr/bin/chromedriver");
    try (InProcessBraid local =
        new InProcessBraid(
            "local",
            "--data-servers",
            "2",
            "--data",
            tmp.resolve("cluster").toString(),
            "--mds-port",
            "0",
            "-D",
            "braid.metrics.address=127.0.0.1:0")) {
      String base = "http://" + local.awaitLine(METRICS).group(1);
      Matcher ready = local.awaitLine(Pattern.compile(".*braid://127\\.0\\.0\\.1:(\\d+)/.*"));
      String mds = "127.0.0.1:" + ready.group(1);
      Path file = tmp.resolve("file");
      Files.write(file, new byte[3_000_000]);
      assertThat(FsCommandTest.fsAt(mds, "mkdir", "-p", "/data/logs", "/home/alice").code())
          .isZero();
      assertThat(FsCommandTest.fsAt(mds, "put", file.toString(), "/data/logs/" + EVIL).code())
          .isZero();
      LoggerFactory.getLogger(StatusPageTest.class)
          .warn("status page test: <b>a warning with markup</b> shows as text");
      readOnly(base);

      ChromeDriverService service =
          new ChromeDriverService.Builder()
              .usingDriverExecutable(chromedriver.toFile())
              .usingAnyFreePort()
              .build();
      WebDriver driver = new ChromeDriver(service, options(chromium));
      try {
        List<String> errors = new ArrayList<>();
        mdsPage(driver, base, mds, errors);
        dataServerPage(driver, base, mds, errors);
        assertThat(errors).as("browser console errors").isEmpty();
      } finally {
        driver.quit();
        service.close();
      }
    }
  }

  private void mdsPage(WebDriver driver, String base, String mds, List<String> errors)
      throws Exception {
    driver.get(base + "/");
    await("two data servers in the table", () -> rows(driver, "#servers tbody tr") == 2);
    await(
        "the summary",
        () ->
            text(driver, "#summary").contains("HEALTHY")
                && text(driver, "#summary").contains("Files"));
    // The chart gains a point every 2 s; load makes it worth looking at.
    await("a first chart point", () -> points(driver) >= 1);
    int first = points(driver);
    // Calls for the chart to show, for some seconds.
    long until = System.nanoTime() + Duration.ofSeconds(8).toNanos();
    while (System.nanoTime() < until) {
      FsCommandTest.fsAt(mds, "ls", "-R", "/");
    }
    // The chart keeps the last 30 points: once full, it changes without growing.
    await("more chart points", () -> points(driver) >= Math.min(first + 2, 30));

    // The namespace browser: / -> data -> logs -> the file and its replicas.
    click(driver, "#listing a[data-path='/data']");
    click(driver, "#listing a[data-path='/data/logs']");
    click(driver, "#listing a[data-path='/data/logs/" + EVIL + "']");
    await("the file's chunks", () -> rows(driver, "#chunks tbody tr") == 2);
    assertThat(text(driver, "#file-path")).isEqualTo("/data/logs/" + EVIL);
    assertThat(text(driver, "#chunks")).containsPattern("ds \\d+ @ 127\\.0\\.0\\.1:\\d+");
    assertThat(driver.findElements(By.tagName("img"))).as("markup from a file name").isEmpty();
    // Back to a directory through the path above the file.
    click(driver, "#crumbs a[data-path='/data']");
    await("the listing of /data", () -> text(driver, "#listing").contains("logs"));
    click(driver, "#listing a[data-path='/data/logs']");
    await("the listing of /data/logs", () -> text(driver, "#listing").contains(EVIL));
    await(
        "the warning, as text",
        () -> text(driver, "#warnings").contains("<b>a warning with markup</b>"));
    assertThat(driver.findElements(By.cssSelector("#warnings b"))).isEmpty();
    click(driver, "#listing a[data-path='/data/logs/" + EVIL + "']");
    await("the file's chunks again", () -> rows(driver, "#chunks tbody tr") == 2);
    errors.addAll(consoleErrors(driver));
    screenshot(driver, "status-mds.png");
  }

  private void dataServerPage(WebDriver driver, String base, String mds, List<String> errors)
      throws Exception {
    driver.get(base + "/status/ds?id=ds1");
    await("the data server's directories", () -> rows(driver, "#dirs tbody tr") == 1);
    await("its id", () -> text(driver, "#title").equals("ds1"));
    assertThat(text(driver, "#summary")).contains("Replicas").contains("127.0.0.1:");
    // Reads of the file for this server's chart.
    long until = System.nanoTime() + Duration.ofSeconds(7).toNanos();
    Path copy = tmp.resolve("copy");
    while (System.nanoTime() < until) {
      Files.deleteIfExists(copy);
      FsCommandTest.fsAt(mds, "get", "/data/logs/" + EVIL, copy.toString());
    }
    await("chart points", () -> points(driver) >= 3);
    errors.addAll(consoleErrors(driver));
    screenshot(driver, "status-dataserver.png");
  }

  /** The page has no write handlers: a POST is refused, and so is a path with "..". */
  private static void readOnly(String base) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> post =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/status/api/ls?path=/"))
                .POST(HttpRequest.BodyPublishers.ofString("x"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
    HttpResponse<String> up =
        http.send(
            HttpRequest.newBuilder(URI.create(base + "/status/api/ls?path=/data/../home")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(up.statusCode()).isEqualTo(400);
    assertThat(up.body()).contains("INVALID_ARGUMENT");
  }

  private static ChromeOptions options(Path chromium) {
    ChromeOptions o = new ChromeOptions();
    o.setBinary(chromium.toFile());
    // --no-sandbox: CI runs as root, where chromium's sandbox refuses to start.
    o.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1000");
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    o.setCapability("goog:loggingPrefs", logs);
    return o;
  }

  private static List<String> consoleErrors(WebDriver driver) {
    List<String> out = new ArrayList<>();
    for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
      if (e.getLevel().intValue() >= Level.WARNING.intValue()) {
        out.add(e.getLevel() + " " + e.getMessage());
      }
    }
    return out;
  }

  private void screenshot(WebDriver driver, String name) throws Exception {
    // The window as tall as the page, so that the picture holds all of it and nothing more.
    Object height =
        ((JavascriptExecutor) driver)
            .executeScript(
                "return Math.ceil(document.body.getBoundingClientRect().height)"
                    + " + window.outerHeight - window.innerHeight");
    driver.manage().window().setSize(new Dimension(1280, ((Number) height).intValue()));
    await(
        "the window to fit the page",
        () ->
            Boolean.TRUE.equals(
                ((JavascriptExecutor) driver)
                    .executeScript(
                        "return window.innerHeight"
                            + " >= Math.ceil(document.body.getBoundingClientRect().height)")));
    byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
    Path dir = Path.of("target", "status-page");
    Files.createDirectories(dir);
    Files.write(dir.resolve(name), png);
    if (Boolean.getBoolean("braid.docs.regenerate")) {
      Path docs = ConfigurationDocTest.repositoryRoot().resolve("docs/images");
      Files.createDirectories(docs);
      Files.write(docs.resolve(name), png);
    }
  }

  private static void click(WebDriver driver, String css) {
    await(css, () -> !driver.findElements(By.cssSelector(css)).isEmpty());
    driver.findElement(By.cssSelector(css)).click();
  }

  private static int rows(WebDriver driver, String css) {
    return driver.findElements(By.cssSelector(css)).size();
  }

  private static String text(WebDriver driver, String css) {
    List<WebElement> found = driver.findElements(By.cssSelector(css));
    return found.isEmpty() ? "" : found.get(0).getText();
  }

  private static int points(WebDriver driver) {
    String n = driver.findElement(By.id("chart")).getDomAttribute("data-points");
    return n == null ? 0 : Integer.parseInt(n);
  }

  private static void await(String what, java.util.function.BooleanSupplier done) {
    Await.until(what, WAIT, done);
  }

  /**
   * The tool at {@code path}; if it is missing, the test is skipped saying so (or fails, where CI
   * requires the outside tools).
   */
  private static Path tool(String name, String path) {
    Path p = Path.of(path);
    if (Files.isExecutable(p)) {
      return p;
    }
    String why =
        name
            + " is missing at "
            + path
            + " (apt-get install --no-install-recommends chromium chromium-driver): the status page"
            + " is not tested in a browser";
    if ("1".equals(System.getenv("BRAID_OUTSIDE_TOOLS_REQUIRED"))) {
      throw new AssertionError(why + ", and BRAID_OUTSIDE_TOOLS_REQUIRED=1");
    }
    assumeThat(Files.isExecutable(p)).as(why).isTrue();
    return p;
  }
}
