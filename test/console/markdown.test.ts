import { describe, expect, test } from "bun:test";
import { highlight } from "../../src/console/app/highlight.ts";
import { renderMarkdown } from "../../src/console/app/markdown.ts";

describe("the console's Markdown", () => {
  test("a reply can never inject HTML: everything is escaped, only http(s) and mailto links are made", () => {
    const html = renderMarkdown('<img src=x onerror=alert(1)> [x](javascript:alert(1)) [ok](https://example.org/a?b=1&c="2")');
    expect(html).not.toContain("<img");
    expect(html).toContain("&#60;img src=x onerror=alert(1)&#62;");
    expect(html).not.toContain('href="javascript');
    expect(html).toContain('<a href="https://example.org/a?b=1&#38;c=&#34;2&#34;" target="_blank" rel="noopener noreferrer">ok</a>');
  });

  test("blocks and inline marks", () => {
    expect(renderMarkdown("# Title\n\nsome **bold**, *it*, `code` and ~~gone~~\n\n- a\n- b\n\n1. one\n\n> quoted\n\n---")).toBe(
      "<h1>Title</h1><p>some <strong>bold</strong>, <em>it</em>, <code>code</code> and <del>gone</del></p>" +
        "<ul><li>a</li><li>b</li></ul><ol><li>one</li></ol><blockquote>quoted</blockquote><hr>",
    );
  });

  test("a fenced block is highlighted; one still streaming (unclosed) runs to the end", () => {
    expect(renderMarkdown("```js\nconst x = 'a' // c\n```")).toBe(
      '<pre class="code"><span class="lang">js</span><code><span class="hl-k">const</span> x = <span class="hl-s">&#39;a&#39;</span> <span class="hl-c">// c</span></code></pre>',
    );
    expect(renderMarkdown("text\n```py\nprint(1)")).toBe('<p>text</p><pre class="code"><span class="lang">py</span><code>print(<span class="hl-n">1</span>)</code></pre>');
  });

  test("# is a comment only in languages that use it", () => {
    expect(highlight("x = 1 # note", "python")).toContain('<span class="hl-c"># note</span>');
    expect(highlight("a#b", "ts")).toBe("a#b");
  });
});
