package io.github.dbleader.autoconfigure.health;

import java.util.List;

import org.springframework.boot.health.contributor.CompositeHealthContributor;

/**
 * The names of a composite's entries, in order. Spring Boot 4 streams a composite's
 * entries and Spring Boot 3 iterates them, so the Boot 3 module has its own form of this
 * class.
 */
final class EntryNames {

	private EntryNames() {
	}

	static List<String> of(CompositeHealthContributor contributor) {
		return contributor.stream().map(CompositeHealthContributor.Entry::name).toList();
	}

}
