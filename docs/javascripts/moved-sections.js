// A section that moved when its chapter was split: an old link to it, which the redirect of the
// chapter's old address brings here with its #section, goes on to the page that holds the section
// now (moved-sections.json: page -> old id -> new address, from the site's root).
(() => {
  let id;
  try {
    id = decodeURIComponent(location.hash.slice(1));
  } catch (error) {  // a malformed #section: nothing to look up
    return;
  }
  const config = document.getElementById("__config");
  if (!id || document.getElementById(id) || !config) return;
  const root = new URL(JSON.parse(config.textContent).base + "/", location.href);
  const page = (location.origin + location.pathname).slice(root.href.length).replace(/index\.html$/, "");
  fetch(new URL("javascripts/moved-sections.json", root))
    .then(reply => reply.json())
    .then(moved => {
      const to = (moved[page] || {})[id];
      if (to) location.replace(new URL(to, root));
    })
    .catch(() => {});
})();
