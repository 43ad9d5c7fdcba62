import { describe, expect, it } from "vitest";
import { chooseFiles, filesNamed } from "./uploads";

describe("a browser's chosen files", () => {
  it("are sent by the name the screen holds, in base64", async () => {
    const picking = chooseFiles(".fdpack");
    const input = document.querySelector<HTMLInputElement>('[data-testid="file-chooser"]');
    expect(input?.accept).toBe(".fdpack");
    const file = new File(["pack bytes"], "for-ana.fdpack");
    Object.defineProperty(input, "files", { value: [file] });
    input?.dispatchEvent(new Event("change"));
    const names = await picking;
    expect(names).toEqual(["for-ana.fdpack"]);
    expect(document.querySelector('[data-testid="file-chooser"]')).toBeNull();
    const [sent] = await filesNamed(names);
    expect(sent?.name).toBe("for-ana.fdpack");
    expect(atob(sent?.base64 ?? "")).toBe("pack bytes");
  });

  it("refuse a name typed by hand, saying how to choose", async () => {
    await expect(filesNamed(["/home/lead/returned.fdpack"])).rejects.toThrow(/Choose…/);
  });
});
