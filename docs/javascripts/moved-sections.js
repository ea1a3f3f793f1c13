// A section that moved when its chapter was split: an old link to it, which the redirect of the
// chapter's old address brings here with its #section, goes on to the page that holds the section
// now (moved-sections.json: page -> old id -> new address, from the site's root).
(() => {
  const id = decodeURIComponent(location.hash.slice(1));
  if (!id || document.getElementById(id)) return;
  const config = document.getElementById("__config");
  if (!config) return;
  const root = new URL(JSON.parse(config.textContent).base + "/", location.href);
  const page = location.href.split("#")[0].slice(root.href.length);
  fetch(new URL("javascripts/moved-sections.json", root))
    .then(reply => reply.json())
    .then(moved => {
      const to = (moved[page] || {})[id];
      if (to) location.replace(new URL(to, root));
    })
    .catch(() => {});
})();
