/// The page's markup, style and script (see `WebPage`). Every text from the server is put into
/// the page with `textContent` or `value`, never as markup, so a book named `<script>` is text.
enum WebPageHTML {
    static let text = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>booksd</title>
        <style>
        body { font: 15px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #222; background: #fafafa; }
        header { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
        h1 { font-size: 1.4rem; margin: 0; }
        #state { padding: .15rem .6rem; border-radius: 1rem; background: #ddd; font-size: .85rem; }
        #state.live { background: #c8efc8; } #state.down { background: #f6c6c6; }
        .controls { display: flex; gap: .8rem; margin: 1rem 0; flex-wrap: wrap; align-items: end; }
        label { display: flex; flex-direction: column; font-size: .85rem; gap: .2rem; }
        input, select, button { font: inherit; padding: .3rem .5rem; }
        button { cursor: pointer; }
        table { border-collapse: collapse; width: 100%; background: #fff; }
        th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid #e4e4e4; }
        th button { border: 0; background: none; font-weight: bold; padding: 0; }
        td.id { font-family: monospace; font-size: .8rem; color: #666; }
        tr.flash { animation: flash 1.5s ease-out; }
        @keyframes flash { from { background: #fff3a8; } to { background: transparent; } }
        #message { min-height: 1.4rem; margin: .5rem 0; }
        #message.error { color: #a40000; font-weight: bold; }
        #info { color: #555; font-size: .85rem; }
        :focus-visible { outline: 2px solid #1a5fb4; outline-offset: 1px; }
        </style>
        </head>
        <body>
        <header>
          <h1>booksd</h1>
          <label>Store <select id="store" aria-label="Store"></select></label>
          <span id="state" role="status" aria-live="polite">connecting</span>
          <span id="info"></span>
        </header>
        <div class="controls">
          <label>Search <input id="search" type="search" placeholder="name or author"></label>
          <form id="add-form" class="controls" aria-label="Add a book">
            <label>Name <input id="add-name" required></label>
            <label>Author <input id="add-author" required></label>
            <button id="add-button" type="submit">Add book</button>
          </form>
        </div>
        <div id="message" role="alert" aria-live="assertive"></div>
        <table id="books">
          <caption id="caption">Books</caption>
          <thead><tr>
            <th scope="col"><button type="button" data-sort="name">Name</button></th>
            <th scope="col"><button type="button" data-sort="author">Author</button></th>
            <th scope="col"><button type="button" data-sort="id">Id</button></th>
            <th scope="col">Actions</th>
          </tr></thead>
          <tbody></tbody>
        </table>
        <script>
        "use strict";
        const books = new Map();   // id -> {id, name, author, version}
        let store = null, source = null, sortField = "name", ascending = true, editing = null, draft = null;
        const $ = (id) => document.getElementById(id);
        const api = (path) => "/v1/stores/" + encodeURIComponent(store) + path;

        function say(text, isError) {
          $("message").textContent = text;
          $("message").className = isError ? "error" : "";
        }
        function setState(text, cls) { $("state").textContent = text; $("state").className = cls || ""; }

        async function request(method, path, body, version) {
          const headers = { "Content-Type": "application/json" };
          if (version !== undefined && version !== null) headers["If-Match"] = '"' + version + '"';
          const response = await fetch(api(path), {
            method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
          let json = null;
          if (response.status !== 204) { try { json = await response.json(); } catch (e) { json = null; } }
          return { status: response.status, json };
        }

        async function loadStores() {
          const response = await fetch("/v1/stores");
          const json = await response.json();
          const select = $("store");
          select.textContent = "";
          for (const info of json.stores) {
            const option = document.createElement("option");
            option.value = info.name;
            option.textContent = info.name + " (" + info.bookCount + " books" +
              (info.badLines ? ", " + info.badLines + " bad lines" : "") + ")";
            select.appendChild(option);
          }
          const shown = json.stores.find((s) => s.name === store) || json.stores[0];
          if (shown) { select.value = shown.name; showInfo(shown); }
          return shown ? shown.name : null;
        }
        function showInfo(info) {
          $("info").textContent = info.format + ", " + info.state +
            (info.badLines ? " — " + info.badLines + " bad line(s) kept in the file (booksctl status)" : "") +
            (info.problem ? " — " + info.problem : "");
        }

        async function loadBooks() {
          books.clear();
          let after = null, position = null;
          for (let page = 0; page < 100; page++) {
            const query = "?limit=10000" + (after ? "&after=" + encodeURIComponent(after) : "");
            const response = await fetch(api("/books" + query));
            const json = await response.json();
            if (!position) position = json.epoch + ":" + json.seq;
            for (const book of json.books) books.set(book.id, { ...book, version: null });
            if (!json.next) break;
            after = json.next;
          }
          render();
          return position;
        }

        async function refreshBook(id) {
          const { status, json } = await request("GET", "/books/" + encodeURIComponent(id));
          if (status === 200) { books.set(id, json); render([id]); }
        }

        function visible() {
          const needle = $("search").value.toLowerCase();
          const list = [...books.values()].filter((b) =>
            !needle || b.name.toLowerCase().includes(needle) || b.author.toLowerCase().includes(needle));
          list.sort((a, b) => {
            const x = a[sortField] || "", y = b[sortField] || "";
            const order = x < y ? -1 : x > y ? 1 : (a.id < b.id ? -1 : 1);
            return ascending ? order : -order;
          });
          return list;
        }

        function cell(row, text, cls) {
          const td = document.createElement("td");
          td.textContent = text;
          if (cls) td.className = cls;
          row.appendChild(td);
          return td;
        }
        function button(text, label, handler) {
          const b = document.createElement("button");
          b.type = "button";
          b.textContent = text;
          b.setAttribute("aria-label", label);
          b.addEventListener("click", handler);
          return b;
        }

        function render(flashed) {
          const body = $("books").tBodies[0];
          body.textContent = "";
          const list = visible();
          for (const book of list) {
            const row = document.createElement("tr");
            row.dataset.id = book.id;
            if (editing === book.id) {
              // The draft keeps what was typed and the version it started from, whatever arrives meanwhile.
              const name = document.createElement("input");
              name.value = draft.name; name.className = "edit-name"; name.setAttribute("aria-label", "Name");
              name.addEventListener("input", () => { draft.name = name.value; });
              const author = document.createElement("input");
              author.value = draft.author; author.className = "edit-author"; author.setAttribute("aria-label", "Author");
              author.addEventListener("input", () => { draft.author = author.value; });
              row.appendChild(document.createElement("td")).appendChild(name);
              row.appendChild(document.createElement("td")).appendChild(author);
              cell(row, book.id, "id");
              const actions = row.appendChild(document.createElement("td"));
              const save = button("Save", "Save " + book.name, () => saveEdit(book));
              save.className = "save";
              actions.appendChild(save);
              actions.appendChild(button("Cancel", "Cancel editing", () => { editing = null; render(); }));
              row.addEventListener("keydown", (e) => {
                if (e.key === "Enter") saveEdit(book);
                if (e.key === "Escape") { editing = null; render(); }
              });
            } else {
              cell(row, book.name, "name");
              cell(row, book.author, "author");
              cell(row, book.id, "id");
              const actions = row.appendChild(document.createElement("td"));
              const edit = button("Edit", "Edit " + book.name, () => startEdit(book.id));
              edit.className = "edit";
              actions.appendChild(edit);
              const remove = button("Delete", "Delete " + book.name, () => removeBook(book));
              remove.className = "delete";
              actions.appendChild(remove);
            }
            if (flashed && flashed.includes(book.id)) row.classList.add("flash");
            body.appendChild(row);
          }
          $("caption").textContent = "Books in " + store + ": " + list.length + " shown of " + books.size;
          if (editing) { const input = body.querySelector(".edit-name"); if (input && !input.matches(":focus")) input.focus(); }
        }

        async function startEdit(id) {
          if (books.get(id).version === null) await refreshBook(id);
          const book = books.get(id);
          editing = id;
          draft = { version: book.version, name: book.name, author: book.author };
          render();
        }

        function conflict(json, what) {
          const current = json && json.error && json.error.current;
          if (current) {
            books.set(current.id, current);
            say("Conflict: this book was changed meanwhile — it is now \u201c" + current.name + "\u201d by " +
              current.author + " (version " + current.version + "). Your " + what + " was not saved; " +
              "the current value is shown.", true);
          } else {
            say("Conflict: " + (json && json.error ? json.error.message : "the book changed meanwhile"), true);
          }
          editing = null;
          render(current ? [current.id] : []);
        }

        async function saveEdit(book) {
          const { status, json } = await request("PUT", "/books/" + encodeURIComponent(book.id),
            { name: draft.name, author: draft.author }, draft.version);
          if (status === 200) { books.set(json.id, json); editing = null; say("Saved \u201c" + json.name + "\u201d."); render([json.id]); }
          else if (status === 412) conflict(json, "edit");
          else say("Not saved: " + (json && json.error ? json.error.message : "HTTP " + status), true);
        }

        async function removeBook(book) {
          if (book.version === null) await refreshBook(book.id);
          const { status, json } = await request("DELETE", "/books/" + encodeURIComponent(book.id), undefined,
            books.get(book.id) ? books.get(book.id).version : null);
          if (status === 204) { books.delete(book.id); say("Deleted \u201c" + book.name + "\u201d."); render(); }
          else if (status === 412) conflict(json, "delete");
          else say("Not deleted: " + (json && json.error ? json.error.message : "HTTP " + status), true);
        }

        $("add-form").addEventListener("submit", async (e) => {
          e.preventDefault();
          const { status, json } = await request("POST", "/books", { name: $("add-name").value, author: $("add-author").value });
          if (status === 201) {
            books.set(json.id, json);
            say("Added \u201c" + json.name + "\u201d.");
            $("add-name").value = ""; $("add-author").value = "";
            render([json.id]);
          } else say("Not added: " + (json && json.error ? json.error.message : "HTTP " + status), true);
        });
        $("search").addEventListener("input", () => render());
        for (const b of document.querySelectorAll("th button")) {
          b.addEventListener("click", () => {
            if (sortField === b.dataset.sort) ascending = !ascending; else { sortField = b.dataset.sort; ascending = true; }
            render();
          });
        }
        $("store").addEventListener("change", () => follow($("store").value));

        function applyChange(change) {
          const touched = [];
          for (const b of change.inserted || []) { books.set(b.id, { ...b, version: change.seq }); touched.push(b.id); }
          for (const u of change.updated || []) { books.set(u.new.id, { ...u.new, version: change.seq }); touched.push(u.new.id); }
          for (const b of change.deleted || []) books.delete(b.id);
          render(touched);
        }

        async function follow(name) {
          if (source) source.close();
          store = name;
          editing = null;
          setState("connecting");
          // The list's position, then every change after it (the browser resumes by Last-Event-ID).
          const position = await loadBooks();
          source = new EventSource(api("/changes?since=" + encodeURIComponent(position)));
          source.onopen = () => setState("live", "live");
          source.onerror = () => setState("reconnecting", "down");
          source.addEventListener("change", (e) => applyChange(JSON.parse(e.data)));
          source.addEventListener("resync", () => follow(store));
        }

        (async () => {
          try { const first = await loadStores(); if (first) await follow(first); else say("No stores.", true); }
          catch (e) { setState("offline", "down"); say("Cannot reach booksd: " + e, true); }
        })();
        </script>
        </body>
        </html>
        """#
}
