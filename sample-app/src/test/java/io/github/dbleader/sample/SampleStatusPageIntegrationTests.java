package io.github.dbleader.sample;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.partition.PartitionGroups;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The status page in a real headless Chromium ({@link Chromium}), served by one of two
 * nodes of the sample on the MySQL-protocol test database: it shows who leads, and its
 * buttons move leadership, as the leader endpoint then confirms. A screenshot of the page
 * after each step is left in {@code target/status-page-*.png}.
 */
@ExtendWith(Chromium.class)
class SampleStatusPageIntegrationTests extends AbstractSampleIntegrationTests {

	private Path profile;

	private ChromeDriver browser;

	@BeforeEach
	void createProfile() throws IOException {
		this.profile = Files.createTempDirectory("sample-chromium-");
	}

	@AfterEach
	void quitTheBrowser() {
		// Runs before the nodes stop (the superclass's @AfterEach comes last).
		if (this.browser != null) {
			this.browser.quit();
		}
		Chromium.deleteProfile(this.profile);
	}

	@Test
	void buttonsMoveLeadershipAndThePageShowsIt() throws IOException {
		// The browser first: its start-up takes the CPU for a moment, better not
		// mid-election.
		this.browser = Chromium.start(this.profile);
		List<SampleNode> nodes = startLeaderAndFollower("page-a", "page-b");
		SampleNode a = nodes.get(0);
		SampleNode b = nodes.get(1);
		Election electionA = a.election();
		Election electionB = b.election();

		this.browser.get(a.url("/"));
		// The page refreshes itself every second; each wait spans several refreshes.
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(text("node-id")).isEqualTo("page-a");
			assertThat(text("leader")).isEqualTo("page-a");
			assertThat(text("role")).isEqualTo("LEADER");
			assertThat(text("term")).isEqualTo(Long.toString(electionA.term()));
			assertThat(candidateRows()).containsExactly("page-a", "page-b");
			assertThat(runNodes()).isNotEmpty().containsOnly("page-a");
		});
		await().atMost(Duration.ofSeconds(5))
			.ignoreException(StaleElementReferenceException.class)
			.untilAsserted(
					() -> assertThat(makeLeaderButton("page-a").isEnabled()).as("the leader's own button").isFalse());
		screenshot("1-a-leads");

		clickMakeLeader("page-b");
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(text("leader")).isEqualTo("page-b");
			assertThat(text("role")).isEqualTo("follower");
			assertThat(runNodes()).contains("page-b");
		});
		assertThat(text("error")).isEmpty();
		screenshot("2-b-leads");
		assertThat(electionB.isLeader()).isTrue();
		assertThat(electionA.isLeader()).isFalse();
		HttpResponse<String> confirmed = b.send("GET", "/actuator/leader/default", null);
		assertThat(confirmed.body()).contains("\"leader\":\"page-b\"", "\"thisNodeLeads\":true",
				"\"term\":" + electionB.term());

		// A re-election: B steps down and stays out for a lease, so A, the other live
		// candidate, takes over.
		this.browser.findElement(By.id("reelect")).click();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(text("leader")).isEqualTo("page-a");
			assertThat(text("role")).isEqualTo("LEADER");
		});
		assertThat(text("error")).isEmpty();
		screenshot("3-reelected");
		assertThat(a.send("GET", "/actuator/leader/default", null).body()).contains("\"leader\":\"page-a\"",
				"\"thisNodeLeads\":true");

		// The cluster-lock job's own section: its runs per instance, whichever leads.
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			assertThat(nodeIdsOfRows("#lock-runs-per-node tr")).isNotEmpty().isSubsetOf("page-a", "page-b");
			assertThat(nodeIdsOfRows("#lock-runs tr")).isNotEmpty().isSubsetOf("page-a", "page-b");
		});
		assertThat(text("lock-runs-error")).isEmpty();
		screenshot("4-lock-job");

		// The partition group's grid: 12 partitions coloured by owner, shared 6 and 6 by
		// the
		// two nodes (the second gets its share once settled), the legend counting them.
		await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
			List<String> owners = partitionOwners();
			assertThat(owners).hasSize(12);
			assertThat(owners.stream().filter("page-a"::equals)).hasSize(6);
			assertThat(owners.stream().filter("page-b"::equals)).hasSize(6);
			assertThat(legend()).containsExactly("page-a (this node): 6", "page-b: 6");
		});
		assertThat(text("partitions-error")).isEmpty();
		assertThat(partitionColours()).as("one colour per owner").hasSize(2);
		assertThat(a.bean(PartitionGroups.class).group("orders").ownedPartitions()).hasSize(6);
		this.browser.executeScript("document.getElementById('partitions').scrollIntoView();");
		screenshot("5-partitions");
	}

	/** The owner of each square of the grid, in order of partitions. */
	@SuppressWarnings("unchecked")
	private List<String> partitionOwners() {
		return (List<String>) this.browser.executeScript(
				"return Array.from(document.querySelectorAll('#partition-grid .partition'), (square) => square.dataset.owner);");
	}

	/** The distinct background colours of the grid's squares. */
	@SuppressWarnings("unchecked")
	private List<String> partitionColours() {
		return (List<String>) this.browser.executeScript("return [...new Set(Array.from("
				+ "document.querySelectorAll('#partition-grid .partition'), (square) => square.style.background))];");
	}

	@SuppressWarnings("unchecked")
	private List<String> legend() {
		return (List<String>) this.browser.executeScript(
				"return Array.from(document.querySelectorAll('#partition-legend li'), (item) => item.textContent);");
	}

	private String text(String id) {
		return this.browser.findElement(By.id(id)).getText();
	}

	private List<String> candidateRows() {
		return nodeIdsOfRows("#candidates tr");
	}

	private List<String> runNodes() {
		return nodeIdsOfRows("#runs tr");
	}

	/**
	 * The node ids of a table's rows, read in one script: the page replaces its rows at
	 * every refresh, so rows found in one call may be gone by the next.
	 */
	@SuppressWarnings("unchecked")
	private List<String> nodeIdsOfRows(String selector) {
		return (List<String>) this.browser.executeScript(
				"return Array.from(document.querySelectorAll(arguments[0]), (row) => row.dataset.nodeId);", selector);
	}

	private WebElement makeLeaderButton(String nodeId) {
		return this.browser.findElement(By.cssSelector("button.make-leader[data-node-id='" + nodeId + "']"));
	}

	/**
	 * Click a candidate's button as a user would. The button is replaced at every
	 * refresh; a click on a replaced one fails without effect and is tried again.
	 */
	private void clickMakeLeader(String nodeId) {
		await().atMost(Duration.ofSeconds(5)).ignoreException(StaleElementReferenceException.class).until(() -> {
			makeLeaderButton(nodeId).click();
			return true;
		});
	}

	private void screenshot(String name) throws IOException {
		Path file = Path.of("target", "status-page-" + name + ".png");
		Files.write(file, this.browser.getScreenshotAs(OutputType.BYTES));
	}

}
