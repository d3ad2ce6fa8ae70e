// npm runs scripts with node_modules/.bin first on PATH, where the `node` package puts Node 24.
// Fail loudly instead of silently running on the machine's older Node.
const major = Number(process.versions.node.split('.')[0]);
if (major !== 24) {
  console.error(
    `MedShare needs Node.js 24 (found ${process.version}). Run through npm scripts (npm start, npm test) so that the pinned Node 24 from node_modules/.bin is used, or install Node 24.`,
  );
  process.exit(1);
}
