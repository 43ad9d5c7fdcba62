// The lead's own screens, by name, as home opens them.

import { inBrowser, type Overview } from "../../ipc";
import { isServerAddress } from "../../format";
import type { LeadScreen } from "../home";
import type { Screen } from "../screen";
import { flagsScreen } from "./flags";
import { issueScreen } from "./issue";
import { reviewScreen, type LeadDeps } from "./review";
import { settingsScreen } from "./settings";

export function leadScreen(which: LeadScreen, project: Overview, deps: LeadDeps): Screen {
  if (which === "review") return reviewScreen(deps);
  if (which === "settings" || which === "password") return settingsScreen(deps, which === "password", isServerAddress(project.path) || inBrowser);
  if (which === "flags") return flagsScreen(deps);
  return issueScreen(project, deps);
}
