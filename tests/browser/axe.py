"""axe-core in the page, under the page's own Content-Security-Policy.

axe is served by the test settings from the site's static files (tests/settings.py), so the
page's `script-src 'self'` admits it: nothing is bypassed, and an inline script stays refused.
"""
from django.conf import settings

# WCAG 2.0 and 2.1, levels A and AA (axe-core's tags).
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
AXE_URL = f"{settings.STATIC_URL}{settings.AXE_STATIC_PREFIX}/axe.min.js"

RUN = """async (tags) => {
  const result = await axe.run(document, {runOnly: {type: "tag", values: tags},
                                          resultTypes: ["violations"]});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({target: n.target.join(" "), summary: n.failureSummary})),
  }));
}"""


# An id used twice, or named by aria-describedby/-labelledby/-controls or a label's "for" without
# an element of that id: a screen reader then reads the wrong help text, or none.
REFERENCES = """() => {
  const problems = [], seen = new Map();
  document.querySelectorAll("[id]").forEach((el) => seen.set(el.id, (seen.get(el.id) || 0) + 1));
  seen.forEach((count, id) => { if (count > 1) problems.push(`id "${id}" used ${count} times`); });
  for (const name of ["aria-describedby", "aria-labelledby", "aria-controls", "for"]) {
    document.querySelectorAll(`[${name}]`).forEach((el) => {
      for (const id of el.getAttribute(name).split(/\\s+/).filter(Boolean)) {
        if (!seen.has(id)) problems.push(`${el.tagName.toLowerCase()} ${name}="${id}": no such id`);
      }
    });
  }
  return problems;
}"""


def violations(page) -> list[dict]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        try:
            page.add_script_tag(url=AXE_URL)
        except Exception as exc:  # Playwright's error names no cause a person could act on
            raise AssertionError(f"axe-core did not load from {AXE_URL}: install it with "
                                 "`npm ci` in viewer/ (scripts/test.sh does)") from exc
    return page.evaluate(RUN, TAGS)


def describe(found: list[dict]) -> str:
    lines = []
    for violation in found:
        lines.append(f"{violation['id']} ({violation['impact']}): {violation['help']}")
        lines += [f"    {node['target']}: {node['summary']}" for node in violation["nodes"][:5]]
    return "\n".join(lines)


def assert_no_violations(page, where: str) -> None:
    found = violations(page)
    assert not found, f"axe on {where}:\n{describe(found)}"
    broken = page.evaluate(REFERENCES)
    assert not broken, f"id references on {where}:\n" + "\n".join(broken)
