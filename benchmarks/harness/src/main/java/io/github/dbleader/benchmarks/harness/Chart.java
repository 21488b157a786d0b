package io.github.dbleader.benchmarks.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

import io.github.dbleader.benchmarks.harness.SystemResults.FailoverTrial;

/**
 * The results chart as plain SVG: failover times of every trial per system and fault, and
 * the statements per second of each node in steady state.
 */
final class Chart {

	private static final int WIDTH = 900;

	private static final int LABEL_WIDTH = 290;

	private static final int PLOT_WIDTH = WIDTH - LABEL_WIDTH - 40;

	private static final int ROW_HEIGHT = 26;

	private static final String[] COLOURS = { "#1b6ac9", "#d9730d", "#2f9e44" };

	private Chart() {
	}

	/**
	 * Draw the chart.
	 * @param results every system's results, in the order of {@link SystemUnderTest}
	 * @param leaseMillis the lease
	 * @return the SVG document
	 */
	static String svg(List<SystemResults> results, long leaseMillis) {
		StringBuilder svg = new StringBuilder();
		List<String> body = new ArrayList<>();
		int y = 20;
		body.add(text(20, y + 10, "Failover: time from the fault to the first job run on another node", "bold", 14));
		body.add(text(20, y + 28,
				"each dot one trial (a ring: the node was in the middle of a run); bar: median;" + " tick: p95",
				"normal", 12));
		y += 46;
		long maxMillis = leaseMillis * 2;
		for (SystemResults result : results) {
			for (List<FailoverTrial> trials : result.failovers().values()) {
				for (FailoverTrial trial : trials) {
					maxMillis = Math.max(maxMillis, trial.millis());
				}
			}
		}
		long scaleMillis = ((maxMillis + 999) / 1000) * 1000;
		int axisTop = y;
		for (FaultKind kind : FaultKind.values()) {
			for (int index = 0; index < results.size(); index++) {
				SystemResults result = results.get(index);
				List<FailoverTrial> trials = result.failovers().get(kind);
				Optional<Distribution> times = result.failoverTimes(kind);
				if (trials == null || times.isEmpty()) {
					continue;
				}
				String colour = COLOURS[result.system().ordinal() % COLOURS.length];
				body.add(text(20, y + 17, result.system().label() + ", " + kind.label(), "normal", 12));
				int middle = y + ROW_HEIGHT / 2;
				body.add(
						String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#eeeeee\"/>",
								LABEL_WIDTH, middle, LABEL_WIDTH + PLOT_WIDTH, middle));
				Distribution distribution = times.get();
				if (!distribution.isEmpty()) {
					double median = x(distribution.median(), scaleMillis);
					double p95 = x(distribution.p95(), scaleMillis);
					body.add(String.format(Locale.ROOT,
							"<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" opacity=\"0.25\"/>",
							LABEL_WIDTH, middle - 6, median - LABEL_WIDTH, 12, colour));
					body.add(String.format(Locale.ROOT,
							"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"/>", p95,
							middle - 9, p95, middle + 9, colour));
				}
				for (FailoverTrial trial : trials) {
					String paint = trial.duringRun() ? "fill=\"white\" stroke=\"" + colour + "\" stroke-width=\"1.5\""
							: "fill=\"" + colour + "\" fill-opacity=\"0.6\"";
					body.add(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%d\" r=\"3.5\" %s/>",
							x(trial.millis(), scaleMillis), middle, paint));
				}
				y += ROW_HEIGHT;
			}
			y += 6;
		}
		for (long tick = 0; tick <= scaleMillis; tick += 1000) {
			double x = x(tick, scaleMillis);
			body.add(String.format(Locale.ROOT,
					"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#cccccc\" stroke-width=\"0.5\"/>", x,
					axisTop, x, y));
			body.add(text(x - 6, y + 14, (tick / 1000) + " s", "normal", 11));
		}
		double lease = x(leaseMillis, scaleMillis);
		body.add(String.format(Locale.ROOT,
				"<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c92a2a\" stroke-dasharray=\"4 3\"/>",
				lease, axisTop - 4, lease, y));
		body.add(text(lease + 4, axisTop + 2, "lease " + leaseMillis / 1000.0 + " s", "normal", 11));
		y += 40;
		body.add(text(20, y, "Database cost in steady state: statements per second per node (MariaDB USER_STATISTICS)",
				"bold", 14));
		y += 14;
		double maxRate = 1;
		for (SystemResults result : results) {
			maxRate = Math.max(maxRate,
					Math.max(result.steadyState().runnerPerSecond(), result.steadyState().otherPerSecond()));
		}
		double scaleRate = Math.ceil(maxRate / 5) * 5;
		for (int index = 0; index < results.size(); index++) {
			SystemResults result = results.get(index);
			String colour = COLOURS[result.system().ordinal() % COLOURS.length];
			y = bar(body, y, result.system().label() + ", node with the most runs",
					result.steadyState().runnerPerSecond(), scaleRate, colour, 1.0);
			y = bar(body, y, result.system().label() + ", each other node", result.steadyState().otherPerSecond(),
					scaleRate, colour, 0.5);
			y += 6;
		}
		y += 10;
		svg.append(String.format(Locale.ROOT,
				"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
						+ "font-family=\"sans-serif\">%n",
				WIDTH, y, WIDTH, y));
		svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
		body.forEach((element) -> svg.append(element).append('\n'));
		svg.append("</svg>\n");
		return svg.toString();
	}

	private static int bar(List<String> body, int y, String label, double rate, double scale, String colour,
			double opacity) {
		body.add(text(20, y + 16, label, "normal", 12));
		double width = rate / scale * PLOT_WIDTH;
		body.add(String.format(Locale.ROOT,
				"<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\" fill-opacity=\"%.2f\"/>", LABEL_WIDTH,
				y + 4, width, colour, opacity));
		body.add(text(LABEL_WIDTH + width + 6, y + 16, String.format(Locale.ROOT, "%.1f/s", rate), "normal", 11));
		return y + 24;
	}

	private static double x(long millis, long scaleMillis) {
		return LABEL_WIDTH + (double) millis / scaleMillis * PLOT_WIDTH;
	}

	private static String text(double x, int y, String content, String weight, int size) {
		return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" font-size=\"%d\" font-weight=\"%s\">%s</text>", x,
				y, size, weight, content.replace("&", "&amp;").replace("<", "&lt;"));
	}

}
