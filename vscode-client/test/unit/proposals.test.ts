import { describe, expect, it } from "vitest";
import { type ProposalEnd, Proposals, proposalEndLine, proposalText } from "../../src/core/proposals";

const COMMANDS = { apply: "complexEdit.applyPreview", discard: "complexEdit.discardPreview" };

/** VS Code's notification link syntax (src/vs/base/common/linkedText.ts, parseLinkedText). */
const LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

function links(text: string): { label: string; href: string }[] {
  return [...text.matchAll(LINK)].map((match) => ({ label: match[1] ?? "", href: match[2] ?? "" }));
}

/** The controls of one proposal, as the preview manager wires them. */
function controls(proposals: Proposals<string>, id: string): { toast: ProposalEnd[]; tab: ProposalEnd[] } {
  const seen = { toast: [] as ProposalEnd[], tab: [] as ProposalEnd[] };
  proposals.onEnd(id, (why) => seen.toast.push(why));
  proposals.onEnd(id, (why) => seen.tab.push(why));
  return seen;
}

describe("Proposals", () => {
  it("after Discard from the title, the toast is gone and its Apply finds nothing", () => {
    const proposals = new Proposals<string>();
    proposals.add("1", "proposal one");
    const seen = controls(proposals, "1");

    expect(proposals.end("1", "discarded")).toBe("proposal one"); // the title's Discard
    expect(seen).toEqual({ toast: ["discarded"], tab: ["discarded"] });
    expect(proposals.end("1", "applied")).toBeUndefined(); // a stale Apply: nothing to apply
    expect(seen.toast).toEqual(["discarded"]); // told once
    expect(proposals.size).toBe(0);
  });

  it("applies a proposal once, whichever control is first", () => {
    const proposals = new Proposals<string>();
    proposals.add("1", "one");
    expect(proposals.end("1", "applied")).toBe("one");
    expect(proposals.end("1", "applied")).toBeUndefined();
    expect(proposals.end("1", "closed")).toBeUndefined(); // closing its tab afterwards
  });

  it("tells a control that arrives after the end at once", () => {
    const proposals = new Proposals<string>();
    proposals.add("1", "one");
    proposals.end("1", "stale");
    const late: ProposalEnd[] = [];
    proposals.onEnd("1", (why) => late.push(why));
    expect(late).toEqual(["stale"]);
  });

  it("never turns a control of an ended proposal onto another one", () => {
    const proposals = new Proposals<string>();
    proposals.add("1", "one");
    proposals.add("2", "two");
    proposals.end("1", "discarded");
    expect(proposals.target("1", "2")).toBeUndefined();
    expect(proposals.target(undefined, "2")).toBe("2");
    expect(proposals.target(undefined, undefined)).toBe("2"); // the latest
    expect(proposals.target(undefined, "1")).toBe("2"); // the active one has ended
    proposals.end("2", "applied");
    expect(proposals.target(undefined, undefined)).toBeUndefined();
  });

  it("ends every proposal on dispose, so no toast outlives the extension", () => {
    const proposals = new Proposals<string>();
    proposals.add("1", "one");
    proposals.add("2", "two");
    const one = controls(proposals, "1");
    const two = controls(proposals, "2");
    proposals.endAll("disposed");
    expect([one.toast, two.toast]).toEqual([["disposed"], ["disposed"]]);
    expect(() => proposals.add("1", "again")).toThrow();
  });
});

describe("proposalText", () => {
  it("offers Apply and Discard bound to this proposal", () => {
    const text = proposalText("renamed greet to welcome", "1 turn, 2 tool calls", "7", COMMANDS);
    expect(links(text)).toEqual([
      { label: "Apply", href: `command:complexEdit.applyPreview?${encodeURIComponent('["7"]')}` },
      { label: "Discard", href: `command:complexEdit.discardPreview?${encodeURIComponent('["7"]')}` },
    ]);
    expect(text).toContain("renamed greet to welcome (1 turn, 2 tool calls)");
  });

  it("lets no summary add a link or take one of its own", () => {
    for (const summary of [
      "see [the docs](command:workbench.action.terminal.new) and [x](https://example.com)",
      "an unclosed [ bracket",
      "list[int] ](command:evil)",
    ]) {
      const found = links(proposalText(summary, "", "3", COMMANDS));
      expect(found.map((link) => link.label)).toEqual(["Apply", "Discard"]);
      expect(found.every((link) => link.href.endsWith(encodeURIComponent('["3"]')))).toBe(true);
    }
  });

  it("keeps one short line", () => {
    const text = proposalText(`first line\n\nsecond ${"word ".repeat(500)}`, "", "1", COMMANDS);
    expect(text).not.toContain("\n");
    expect(text.length).toBeLessThan(600);
    expect(text.endsWith("…")).toBe(true);
    expect(proposalText("   ", "", "1", COMMANDS)).toContain("— Done.");
  });
});

describe("proposalEndLine", () => {
  it("says how a proposal ended", () => {
    expect(proposalEndLine("greet.py", "closed")).toBe("[client] proposal for greet.py: discarded (its diff tab was closed)");
    expect(proposalEndLine("greet.py", "applied")).toBe("[client] proposal for greet.py: applied");
  });
});
