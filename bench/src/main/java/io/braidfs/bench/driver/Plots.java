package io.braidfs.bench.driver;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** PNG line charts of a table's medians, drawn with XChart. */
final class Plots {
  private Plots() {}

  /**
   * One curve per system over the table's rows that have an x value; false (and no file) when no
   * row has one.
   */
  static boolean line(Results.Table t, Path png) throws IOException {
    // No display on the benchmark machines; AWT draws into an image only.
    System.setProperty("java.awt.headless", "true");
    XYChart chart =
        new XYChartBuilder()
            .width(800)
            .height(480)
            .title(t.name)
            .xAxisTitle(t.xLabel)
            .yAxisTitle(t.unit.symbol())
            .build();
    chart.getStyler().setXAxisLogarithmic(t.logX);
    // Plain numbers on the axes (XChart writes 1E4 on a log axis otherwise), and rates from zero
    // so that the gap between curves is not exaggerated.
    chart.getStyler().setXAxisDecimalPattern("#,##0.##");
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    chart.getStyler().setMarkerSize(6);
    boolean any = false;
    for (String system : t.systems) {
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (Map.Entry<String, Double> row : t.rows.entrySet()) {
        List<Double> v = t.cell(row.getKey(), system);
        if (v != null && !Double.isNaN(row.getValue())) {
          xs.add(row.getValue());
          ys.add(Stats.median(v));
        }
      }
      if (!xs.isEmpty()) {
        chart.addSeries(system, xs, ys).setMarker(SeriesMarkers.CIRCLE);
        any = true;
      }
    }
    if (any) {
      BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
    return any;
  }

  /**
   * The empirical distribution of each named sample as a step curve: x the value, y the share of
   * the sample at or below it; false (and no file) when every sample is empty.
   */
  static boolean cdf(String title, String xLabel, Map<String, List<Double>> samples, Path png)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYChart chart =
        new XYChartBuilder()
            .width(800)
            .height(480)
            .title(title)
            .xAxisTitle(xLabel)
            .yAxisTitle("share of rounds at or below")
            .build();
    chart.getStyler().setXAxisMin(0.0);
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setYAxisMax(1.0);
    chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    chart.getStyler().setMarkerSize(5);
    boolean any = false;
    for (Map.Entry<String, List<Double>> e : samples.entrySet()) {
      List<Double> v = new ArrayList<>(e.getValue());
      if (v.isEmpty()) {
        continue;
      }
      java.util.Collections.sort(v);
      List<Double> ys = new ArrayList<>();
      for (int i = 0; i < v.size(); i++) {
        ys.add((i + 1) / (double) v.size());
      }
      chart
          .addSeries(e.getKey(), v, ys)
          .setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Step)
          .setMarker(SeriesMarkers.CIRCLE);
      any = true;
    }
    if (any) {
      BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
    return any;
  }
}
