import type { SQL } from "bun";

/** One node of a PostgreSQL plan as `EXPLAIN (FORMAT JSON)` writes it. */
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/** Every node of the plan PostgreSQL makes for a statement. */
export async function planNodes(sql: SQL, statement: { text: string; params: unknown[] }): Promise<PlanNode[]> {
  const rows = (await sql.unsafe(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.params)) as Array<{ "QUERY PLAN": unknown }>;
  const raw = rows[0]!["QUERY PLAN"];
  const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
  return nodes(plan[0]!.Plan);
}
