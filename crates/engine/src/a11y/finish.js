(async (partials, options) => {
  // Merges the frames' partial results into axe-core's report (in the top frame's audit world) and
  // keeps what `a11y` reports: at most 10 nodes per rule, their html cut to 300 characters.
  const report = await window.axe.finishRun(partials, options);
  const nodes = (list) => list.slice(0, 10).map((n) => ({
    target: n.target,
    html: typeof n.html === 'string' ? n.html.slice(0, 300) : '',
    failureSummary: n.failureSummary || '',
  }));
  const rules = (list) => list.map((r) => ({
    id: r.id,
    impact: r.impact || 'unknown',
    help: r.help,
    helpUrl: r.helpUrl,
    tags: r.tags,
    nodeCount: r.nodes.length,
    nodes: nodes(r.nodes),
  }));
  return JSON.stringify({
    url: report.url,
    axeVersion: report.testEngine ? report.testEngine.version : null,
    counts: {
      violations: report.violations.length,
      incomplete: report.incomplete.length,
      passes: report.passes.length,
      inapplicable: report.inapplicable.length,
    },
    violations: rules(report.violations),
    incomplete: rules(report.incomplete),
  });
})
