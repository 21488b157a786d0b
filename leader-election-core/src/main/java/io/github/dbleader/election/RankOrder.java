package io.github.dbleader.election;

import java.util.Comparator;

import org.jspecify.annotations.Nullable;

/**
 * The order of candidates' ranks ({@link ElectionService#setRank(String)}): a candidate
 * of a higher rank asks the leader of a lower rank to hand its leadership over, so that a
 * rolling deploy moves leadership once, to the new version. A rank is usually the
 * application's version, and compares as versions do: split at {@code .}, {@code -},
 * {@code +} and {@code _}, part by part, numbers as numbers ({@code 1.10.0} is above
 * {@code 1.9.2}) and other parts as text, ignoring case; where one rank has parts left
 * over, a number part makes it the higher ({@code 1.2.1} above {@code 1.2}, but
 * {@code 1.2.0} equals {@code 1.2}) and a text part the lower ({@code 1.2-SNAPSHOT} and
 * {@code 1.2-rc1} below {@code 1.2}). The empty rank (no version known) is below every
 * other, and equal ranks never move leadership.
 */
public final class RankOrder implements Comparator<String> {

	/** The order. */
	public static final RankOrder INSTANCE = new RankOrder();

	/** The longest rank the nodes table holds. */
	public static final int MAX_RANK_LENGTH = 64;

	private RankOrder() {
	}

	@Override
	public int compare(String left, String right) {
		String[] a = parts(left);
		String[] b = parts(right);
		int shared = Math.min(a.length, b.length);
		for (int i = 0; i < shared; i++) {
			int order = comparePart(a[i], b[i]);
			if (order != 0) {
				return order;
			}
		}
		// The longer rank's parts left over decide: a number is a later release of the
		// same line (but 1.0.0 is 1.0), text a pre-release of it.
		return (a.length >= b.length) ? leftOver(a, shared) : -leftOver(b, shared);
	}

	/**
	 * Whether a candidate of rank {@code candidate} outranks a holder of rank
	 * {@code holder}; an unknown holder's rank ({@code null}: a repository that does not
	 * keep ranks) is outranked by none.
	 * @param candidate the candidate's rank
	 * @param holder the holder's rank, or {@code null} if unknown
	 * @return whether the candidate is of a strictly higher rank
	 */
	public boolean outranks(String candidate, @Nullable String holder) {
		return holder != null && compare(candidate, holder) > 0;
	}

	private static String[] parts(String rank) {
		String trimmed = rank.strip();
		return trimmed.isEmpty() ? new String[0] : trimmed.split("[.\\-+_]+");
	}

	private static int leftOver(String[] parts, int from) {
		for (int i = from; i < parts.length; i++) {
			if (!isNumber(parts[i])) {
				return -1;
			}
			if (!parts[i].matches("0+")) {
				return 1;
			}
		}
		return 0;
	}

	private static int comparePart(String a, String b) {
		boolean numberA = isNumber(a);
		boolean numberB = isNumber(b);
		if (numberA && numberB) {
			String x = a.replaceFirst("^0+(?=.)", "");
			String y = b.replaceFirst("^0+(?=.)", "");
			return (x.length() != y.length()) ? Integer.compare(x.length(), y.length()) : x.compareTo(y);
		}
		if (numberA != numberB) {
			// 1.2.0 is above 1.2.beta
			return numberA ? 1 : -1;
		}
		return a.compareToIgnoreCase(b);
	}

	private static boolean isNumber(String part) {
		if (part.isEmpty()) {
			return false;
		}
		for (int i = 0; i < part.length(); i++) {
			char c = part.charAt(i);
			if (c < '0' || c > '9') {
				return false;
			}
		}
		return true;
	}

}
