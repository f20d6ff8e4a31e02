#!/usr/bin/python3
"""Drives booksd's web page in headless Chromium (Selenium, Debian python3-selenium +
chromium-driver; run with /usr/bin/python3). Used by the integration test HTTPPageTests.

Usage: web-page-test.py URL BOOK_FILE SCREENSHOT

Checks, in order: the page shows the file's books; a hand edit (sed -i) shows within a second
without a reload; a book added through the form and one edited in the table reach the file; an
edit saved after someone else changed the book shows the 412 conflict message; a book named
<script> is shown as text. Saves a screenshot. Exit status 0 when all hold; prints what failed.
"""
import json
import subprocess
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

url, book_file, screenshot = sys.argv[1], sys.argv[2], sys.argv[3]


def fail(message):
    print("FAIL:", message, flush=True)
    sys.exit(1)


def row_names(driver):
    # Read in one script call: the table is re-rendered as changes arrive (no stale elements).
    return driver.execute_script(
        "return [...document.querySelectorAll('#books tbody td.name')].map((e) => e.textContent)")


def wait(driver, condition, seconds, what):
    try:
        WebDriverWait(driver, seconds, poll_frequency=0.02).until(lambda d: condition(d))
    except Exception:
        fail(f"{what} (not within {seconds} s); rows: {row_names(driver)}; message: "
             f"{driver.find_element(By.ID, 'message').text!r}")


def put(path, body):
    request = urllib.request.Request(url.rstrip("/") + path, data=json.dumps(body).encode(), method="PUT")
    request.add_header("Content-Type", "application/json")
    urllib.request.urlopen(request).read()


options = webdriver.ChromeOptions()
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1100,700"]:
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.get(url)
    wait(driver, lambda d: "Emma" in row_names(d) and "Dune" in row_names(d), 20, "the books are shown")
    wait(driver, lambda d: d.find_element(By.ID, "state").text == "live", 20, "the feed is live")

    subprocess.run(["sed", "-i", "s/|Dune|/|Dune Messiah|/", book_file], check=True)
    started = time.monotonic()
    wait(driver, lambda d: "Dune Messiah" in row_names(d), 1.0, "a hand edit shows without a reload")
    print(f"hand edit shown after {time.monotonic() - started:.3f} s", flush=True)

    driver.find_element(By.ID, "add-name").send_keys("Middlemarch")
    driver.find_element(By.ID, "add-author").send_keys("George Eliot")
    driver.find_element(By.ID, "add-button").click()
    wait(driver, lambda d: "Middlemarch" in row_names(d), 10, "an added book shows")
    wait(driver, lambda d: "|Middlemarch|George Eliot" in open(book_file).read(), 10, "an added book is in the file")

    driver.find_element(By.CSS_SELECTOR, "tr[data-id='b1'] button.edit").click()
    name = WebDriverWait(driver, 10).until(lambda d: d.find_element(By.CSS_SELECTOR, "tr[data-id='b1'] .edit-name"))
    name.clear()
    name.send_keys("Emma, 2nd edition")
    driver.find_element(By.CSS_SELECTOR, "tr[data-id='b1'] button.save").click()
    wait(driver, lambda d: "Emma, 2nd edition" in row_names(d), 10, "an edited book shows")
    wait(driver, lambda d: "b1|Emma, 2nd edition|" in open(book_file).read(), 10, "an edit is in the file")

    # A conflict: the page starts editing b3, someone else changes b3, the page saves.
    driver.find_element(By.CSS_SELECTOR, "tr[data-id='b3'] button.edit").click()
    name = WebDriverWait(driver, 10).until(lambda d: d.find_element(By.CSS_SELECTOR, "tr[data-id='b3'] .edit-name"))
    name.clear()
    name.send_keys("Mine")
    put("/v1/stores/default/books/b3", {"name": "Theirs"})
    time.sleep(0.3)  # the change reaches the page; the draft keeps its version
    driver.find_element(By.CSS_SELECTOR, "tr[data-id='b3'] button.save").click()
    wait(driver, lambda d: "Conflict" in d.find_element(By.ID, "message").text, 10, "a 412 conflict is shown")
    if "Theirs" not in driver.find_element(By.ID, "message").text:
        fail("the conflict message names the current value")
    if "|Mine|" in open(book_file).read():
        fail("the conflicting edit was written")

    wait(driver, lambda d: "<script>window.__xss=true</script>" in row_names(d), 10, "a book named <script> shows as text")
    if driver.execute_script("return window.__xss === true"):
        fail("a book's name ran as script")
    driver.save_screenshot(screenshot)
    print("OK", flush=True)
finally:
    driver.quit()
