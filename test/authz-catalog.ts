import type { Json } from "./support.ts";

interface Request {
  method: string;
  path: string;
  body?: unknown;
}

/** What the matrix gives a recipe: admin calls, a private space with its personas, names. */
export interface MatrixHelpers {
  asAdmin(method: string, path: string, body?: unknown): Promise<Json>;
  freshSpace(): Promise<string>;
  unique(): string;
  /**
   * A dataset or experiment in `space` (public id), known to the DatasetService double the
   * matrix's catalog asks; returns its public id.
   */
  freshDatasetRef(type: "dataset" | "experiment", space: string): Promise<string>;
}

/**
 * Recipes of the authorization matrix (authz-matrix.e2e.test.ts) for the catalog's tag and
 * project routes (datasets' and experiments' tags included, through the dataset double): every target lives in a fresh private space, so each persona's outcome is
 * decided by its permissions there.
 */
export function catalogRecipes(h: MatrixHelpers): Record<string, () => Promise<Request>> {
  const freshTag = async (space?: string) =>
    (
      await h.asAdmin("POST", "/v2/tags", {
        space_id: space ?? (await h.freshSpace()),
        name: h.unique(),
      })
    ).id as string;
  const freshProject = async (space?: string) =>
    (
      await h.asAdmin("POST", "/v2/projects", {
        space_id: space ?? (await h.freshSpace()),
        name: h.unique(),
      })
    ).id as string;
  const projectAndTag = async () => {
    const space = await h.freshSpace();
    return { project: await freshProject(space), tag: await freshTag(space) };
  };
  /** The tag routes of a dataset-service resource: a fresh resource and tag in a fresh space. */
  const refTagRecipes = (type: "dataset" | "experiment", plural: string) => {
    const refAndTag = async () => {
      const space = await h.freshSpace();
      return { ref: await h.freshDatasetRef(type, space), tag: await freshTag(space) };
    };
    return {
      [`list_${type}_tags`]: async () => ({
        method: "GET",
        path: `/v2/${plural}/${await h.freshDatasetRef(type, await h.freshSpace())}/tags`,
      }),
      [`add_${type}_tags`]: async () => {
        const { ref, tag } = await refAndTag();
        return { method: "POST", path: `/v2/${plural}/${ref}/tags`, body: { tag_ids: [tag] } };
      },
      [`remove_${type}_tags`]: async () => {
        const { ref, tag } = await refAndTag();
        await h.asAdmin("POST", `/v2/${plural}/${ref}/tags`, { tag_ids: [tag] });
        return { method: "DELETE", path: `/v2/${plural}/${ref}/tags`, body: { tag_ids: [tag] } };
      },
    };
  };
  return {
    ...refTagRecipes("dataset", "datasets"),
    ...refTagRecipes("experiment", "experiments"),
    list_tags: async () => ({ method: "GET", path: "/v2/tags" }),
    create_tag: async () => ({
      method: "POST",
      path: "/v2/tags",
      body: { space_id: await h.freshSpace(), name: h.unique() },
    }),
    get_tag: async () => ({ method: "GET", path: `/v2/tags/${await freshTag()}` }),
    update_tag: async () => ({
      method: "PATCH",
      path: `/v2/tags/${await freshTag()}`,
      body: { description: "changed" },
    }),
    delete_tag: async () => ({ method: "DELETE", path: `/v2/tags/${await freshTag()}` }),
    list_project_tags: async () => ({
      method: "GET",
      path: `/v2/projects/${await freshProject()}/tags`,
    }),
    add_project_tags: async () => {
      const { project, tag } = await projectAndTag();
      return { method: "POST", path: `/v2/projects/${project}/tags`, body: { tag_ids: [tag] } };
    },
    remove_project_tags: async () => {
      const { project, tag } = await projectAndTag();
      await h.asAdmin("POST", `/v2/projects/${project}/tags`, { tag_ids: [tag] });
      return { method: "DELETE", path: `/v2/projects/${project}/tags`, body: { tag_ids: [tag] } };
    },
    list_projects: async () => ({ method: "GET", path: "/v2/projects" }),
    create_project: async () => ({
      method: "POST",
      path: "/v2/projects",
      body: { space_id: await h.freshSpace(), name: h.unique() },
    }),
    get_project: async () => ({ method: "GET", path: `/v2/projects/${await freshProject()}` }),
    update_project: async () => ({
      method: "PATCH",
      path: `/v2/projects/${await freshProject()}`,
      body: { name: h.unique() },
    }),
    delete_project: async () => ({
      method: "DELETE",
      path: `/v2/projects/${await freshProject()}`,
    }),
  };
}
