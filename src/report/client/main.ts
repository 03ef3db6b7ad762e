import { startReport } from './app';

/** The report page script's entry (bundled by scripts/build-page.mjs into one inline script). */
startReport(document);
