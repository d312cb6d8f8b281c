import { describe, expect, it } from "vitest";
import { checkTemplate, renderTemplate } from "@skillrig/skills";
import type { SkillrigError } from "@skillrig/core";

const SPEC_TEMPLATE = `# Inputs
{% for key, value in input.items() %}
- {{ key }}: {{ value }}
{% endfor %}

# Parameters
{% for key, value in parameter.items() %}
- {{ key }}: {{ value }}
{% endfor %}
`;

describe("prompt templates (nunjucks, Jinja2 habits)", () => {
  it("renders the spec's template text as written, with dict .items()", () => {
    const text = renderTemplate(
      SPEC_TEMPLATE,
      { input: { input_file: "/r/uploads/input_file", query: "hello" }, parameter: { divisor: 3 } },
      "spec",
    );
    expect(text).toBe("# Inputs\n- input_file: /r/uploads/input_file\n- query: hello\n\n# Parameters\n- divisor: 3\n");
  });

  it("still iterates with .items() when an input field is itself called items (the spec's example), and .keys()/.values()", () => {
    const input = { items: ["a", "b"], query: "q" };
    expect(renderTemplate("{% for k, v in input.items() %}{{ k }}={{ v }};{% endfor %}", { input }, "t")).toBe('items=["a","b"];query=q;');
    expect(renderTemplate("{{ input.items | length }} {{ input.keys() | join(',') }} {{ input.values() | length }}", { input }, "t")).toBe(
      "2 items,query 2",
    );
  });

  it("prints objects and arrays as JSON, and leaves HTML unescaped (autoescape off)", () => {
    const text = renderTemplate("{{ a }} {{ b }} {{ c }} {{ b | tojson }}", { a: "<b>&</b>", b: { x: [1, 2] }, c: [true, null] }, "t");
    expect(text).toBe('<b>&</b> {"x":[1,2]} [true,null] {"x":[1,2]}');
  });

  it("names the file and line of a syntax error (template_error)", () => {
    try {
      checkTemplate("line 1\nline 2\n{{ input.x | }}\n", "skills/x/SKILL.md");
      expect.unreachable();
    } catch (error) {
      const e = error as SkillrigError;
      expect(e.code).toBe("template_error");
      expect(e.file).toBe("skills/x/SKILL.md");
      expect(e.line).toBe(3);
      expect(e.message).toContain("skills/x/SKILL.md line 3");
    }
  });

  it("names the line of a render error, and says why items() failed on a list", () => {
    try {
      renderTemplate("ok\n\n{{ shout() }}", {}, "p.md");
      expect.unreachable();
    } catch (error) {
      const e = error as SkillrigError;
      expect(e.code).toBe("template_error");
      expect(e.line).toBe(3);
      expect(e.message).toContain("p.md line 3: Unable to call `shout`");
    }
    expect(() => renderTemplate("{% for k, v in input.items() %}{% endfor %}", { input: [1] }, "p.md")).toThrow(
      /p\.md: items\(\) needs a mapping, got an array/,
    );
  });
});
